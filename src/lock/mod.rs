//! Lockfiles: canonical JSON (RFC 8785), lockfile v1, and the diff against a live server.
