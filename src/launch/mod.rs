//! Launch audit: rules over what a server spec runs and with which credentials (no I/O).
