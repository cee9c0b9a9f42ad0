mod callbacks;
mod create_env;
mod handler;
mod runner;

pub use self::runner::{Config, WcgiRunner};
pub use callbacks::NoOpWcgiCallbacks;
pub use callbacks::{Callbacks, CreateEnvConfig, CreateEnvResult, RecycleEnvConfig};
pub(crate) use create_env::default_create_env;
pub use futures::future::AbortHandle;
pub(crate) use handler::{Handler, SharedState};
