//! JSON Pointers (RFC 6901): the one way every family names a place inside a definition or a
//! config entry (`/tools/3/inputSchema/properties/x/description`, `/env/GITHUB_TOKEN`).

/// Escape one reference token (`~` → `~0`, `/` → `~1`).
pub fn token(s: &str) -> String {
    if s.contains(['~', '/']) {
        s.replace('~', "~0").replace('/', "~1")
    } else {
        s.to_owned()
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
