mod code;
pub mod intrinsics;
//mod stackmap;
mod state;

pub use self::code::FuncTranslator;
