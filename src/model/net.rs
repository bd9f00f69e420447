//! Network names shared by the layers: whether a host is the user's own machine.

/// `localhost` (any case), or a loopback IP literal (`127.0.0.0/8`, `[::1]`): the host part of
/// a URL or an `Origin`, without its port.
pub fn is_loopback_host(host: &str) -> bool {
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    let literal = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    literal
        .parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
}
