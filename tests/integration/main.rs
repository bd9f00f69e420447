//! The one integration-test binary: each module covers one area end to end.

mod allocator;
mod architecture;
mod audit;
mod baseline;
mod ci;
mod cli;
mod config;
mod fixtures;
mod guard;
mod guard_install;
mod handshake;
mod hostile_config;
mod hostile_output;
mod kit;
mod kit_interactive;
mod lexicon;
mod lock;
mod probe;
mod redaction;
mod report;
mod rules;
mod sandbox;
mod suppress;
mod terminal;
