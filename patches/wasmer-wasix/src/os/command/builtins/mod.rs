pub mod cmd_wasmer;
