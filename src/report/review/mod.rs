//! The markdown trust review (`mcpvet review`) and the decision logic behind it.
//!
//! The review follows the trust model a careful reviewer applies to a proposed MCP server:
//! what runs and with whose permissions; what the model reads; annotations are claims; output
//! is data; each risk; a decision (accept, accept with conditions, reject) with the concrete
//! controls required; and the team's pre-install checklist.
//!
//! [`decision`] and [`controls`] conclude (pure, plain data: [`Assessment`]); [`render`] and
//! the section files (`runs`, `reads`, `claims`, `conclusion`, with [`markdown`] helpers)
//! write the markdown. [`decide`] is separate so `scan`/`check` can reuse it.

mod claims;
mod conclusion;
mod controls;
pub mod decision;
mod markdown;
mod reads;
pub mod render;
mod runs;

pub use decision::{Assessment, ControlStatus, Decision, RequiredControl, assess, decide};
pub use render::render_review;
