pub mod common;
pub mod console;
pub mod tty;

pub mod command;
pub mod task;

pub use console::*;
pub use tty::*;
