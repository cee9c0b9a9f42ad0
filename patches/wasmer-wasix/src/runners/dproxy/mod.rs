mod factory;
pub(super) mod handler;
mod hyper_proxy;
mod instance;
mod networking;
mod runner;
mod shard;
mod socket_manager;

pub use self::factory::DProxyInstanceFactory;
pub use self::instance::DProxyInstance;
pub use self::runner::{Config, DProxyRunner};
