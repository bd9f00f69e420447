//! The ground floor: what every layer shares and nothing else. Nothing here imports any other
//! module of the crate.
//!
//! - [`spec`]: what a host configuration says to run ([`spec::ServerSpec`]) and where it said so;
//! - [`package`]: what a launch spec fetches and runs (packages; [`container`]: images and git
//!   sources) and its identity for allowlists and lockfiles;
//! - [`snapshot`]: what a server shows the model;
//! - [`finding`]: the finding model and rule documentation; [`rule_id`]: every built-in rule id,
//!   defined once;
//! - [`pointer`]: JSON Pointers; [`words`]: identifier splitting;
//! - [`secrets`]: recognising credential values; [`credential`]: names that carry credentials;
//!   [`redact`]: showing them (never in full);
//! - [`escape`]: showing text a server or a repository controls (never raw);
//! - [`fsio`]: writing files (atomically, one mode policy);
//! - [`fingerprint`]: the stable identity of a finding (SARIF, JSON, ignores, baselines).

pub mod container;
pub mod credential;
pub mod escape;
pub mod finding;
pub mod fingerprint;
pub mod fsio;
pub mod host;
pub mod net;
pub mod package;
pub mod pointer;
pub mod redact;
pub mod rule_id;
pub mod secrets;
pub mod snapshot;
pub mod spec;
pub mod words;
