//! Guest strings in and out (NUL-terminated, bounded by MPI's maxima).
use super::super::{call::Ctx, errors::{MpiError, MpiResult}};
use crate::abi;

impl Ctx<'_> {
    /// A NUL-terminated guest string of at most `max` bytes before the NUL.
    pub fn cstr(&self, ptr: u32, max: usize) -> MpiResult<std::ffi::CString> {
        let mut bytes = Vec::new();
        for i in 0..=max as u32 {
            let b = self.mem.range(ptr.wrapping_add(i), 1).map_err(MpiError::from)?;
            let b = unsafe { *b };
            if b == 0 {
                return Ok(std::ffi::CString::new(bytes).expect("no interior NUL"));
            }
            bytes.push(b);
        }
        Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("string at {ptr:#x} is longer than {max} bytes")))
    }

    /// A NUL-terminated string of at most `max` bytes (terminator included)
    /// and its length, as MPI's string outputs are.
    pub fn write_string(&self, buf: u32, len: u32, text: &str, max: i32) -> MpiResult {
        let mut bytes = text.as_bytes()[..text.len().min(max as usize - 1)].to_vec();
        let n = bytes.len() as i32;
        bytes.push(0);
        self.mem.range(len, 4)?;
        self.mem.write_bytes(buf, &bytes)?;
        Ok(self.mem.write_i32(len, n)?)
    }
}
