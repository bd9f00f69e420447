//! JSON Pointers (RFC 6901): the one way every family names a place inside a definition or a
//! config entry (`/tools/3/inputSchema/properties/x/description`, `/env/GITHUB_TOKEN`).

/// Escape one reference token (`~` → `~0`, `/` → `~1`). Borrowed when nothing needs
/// escaping (almost every key), so building a pointer allocates only the pointer itself.
pub fn token(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(['~', '/']) {
        std::borrow::Cow::Owned(s.replace('~', "~0").replace('/', "~1"))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_escape_tilde_before_slash() {
        assert_eq!(token("a/b~c"), "a~1b~0c");
        assert_eq!(token("~1"), "~01");
        assert_eq!(token("plain"), "plain");
    }
}
