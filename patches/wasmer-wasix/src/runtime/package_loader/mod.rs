pub mod builtin_loader;
mod load_package_tree;
mod types;
mod unsupported;

pub use self::{
    builtin_loader::BuiltinPackageLoader, load_package_tree::load_package_tree,
    types::to_module_hash, types::PackageLoader, unsupported::UnsupportedPackageLoader,
};
