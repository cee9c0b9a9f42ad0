mod callbacks;
mod factory;
mod handler;
mod instance;
mod runner;

pub use self::runner::{Config, DcgiRunner};
pub use callbacks::DcgiCallbacks;
pub use factory::DcgiInstanceFactory;
pub use futures::future::AbortHandle;
pub(crate) use instance::DcgiInstance;
