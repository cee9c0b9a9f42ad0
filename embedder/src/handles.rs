//! Guest handle -> host object tables, one per handle kind.
//!
//! Guest handles are the standard ABI's integers: predefined ones sit in
//! 1..4095 (each kind in its own small range) and are found by direct index;
//! handles the embedder creates start at `USER_BASE` and index a slab whose
//! freed slots are reused. Lookups are O(1), allocation-free and lock-free
//! (each rank is one single-threaded guest).

/// First guest value of handles created at run time; the standard reserves
/// 1..4095 for predefined handles and 0 is never valid.
pub const USER_BASE: i32 = 0x1_0000;

pub struct Table<T> {
    base: i32,
    predefined: Vec<Option<T>>,
    user: Vec<Option<T>>,
    free: Vec<usize>,
}

impl<T> Table<T> {
    /// A table whose predefined handles are `base..base + count`.
    pub fn new(base: i32, count: usize) -> Self {
        let mut predefined = Vec::with_capacity(count);
        predefined.resize_with(count, || None);
        Self { base, predefined, user: Vec::new(), free: Vec::new() }
    }

    pub fn set_predefined(&mut self, guest: i32, value: T) {
        let i = (guest - self.base) as usize;
        self.predefined[i] = Some(value);
    }

    #[inline]
    fn slot(&self, guest: i32) -> Option<&Option<T>> {
        let i = guest.wrapping_sub(self.base) as u32 as usize;
        if i < self.predefined.len() {
            return self.predefined.get(i);
        }
        self.user.get(guest.checked_sub(USER_BASE)? as u32 as usize)
    }

    #[inline]
    pub fn get(&self, guest: i32) -> Option<&T> {
        self.slot(guest)?.as_ref()
    }

    #[inline]
    #[allow(dead_code)] // used by the bridge families that mutate entries
    pub fn get_mut(&mut self, guest: i32) -> Option<&mut T> {
        let i = guest.wrapping_sub(self.base) as u32 as usize;
        if i < self.predefined.len() {
            return self.predefined[i].as_mut();
        }
        self.user.get_mut(guest.checked_sub(USER_BASE)? as u32 as usize)?.as_mut()
    }

    /// Stores a new object and returns its guest handle.
    #[allow(dead_code)]
    pub fn insert(&mut self, value: T) -> i32 {
        let i = match self.free.pop() {
            Some(i) => {
                let slot = &mut self.user[i];
                debug_assert!(slot.is_none(), "a freed slot is empty");
                // Safety: a freed slot holds None, which owns nothing. Not
                // `replace`, which read back the whole slot over the narrow
                // store `remove` had just made (a store-forwarding stall
                // that cost a nonblocking exchange 23 ns).
                unsafe { std::ptr::write(slot, Some(value)) };
                i
            }
            None => self.push(value),
        };
        USER_BASE + i as i32
    }

    /// `insert` with no freed slot: out of line, so that reusing a slot,
    /// the common case, saves no registers for a vector that may grow.
    #[cold]
    #[inline(never)]
    fn push(&mut self, value: T) -> usize {
        self.user.push(Some(value));
        self.user.len() - 1
    }

    /// The user handles in use.
    pub fn user_handles(&self) -> impl Iterator<Item = i32> + '_ {
        self.user.iter().enumerate().filter(|(_, v)| v.is_some()).map(|(i, _)| USER_BASE + i as i32)
    }

    /// Removes a user handle; predefined handles cannot be removed.
    #[allow(dead_code)]
    pub fn remove(&mut self, guest: i32) -> Option<T> {
        let i = guest.checked_sub(USER_BASE)? as u32 as usize;
        let value = self.user.get_mut(i)?.take()?;
        self.free.push(i);
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predefined_handles_by_direct_index() {
        let mut t = Table::new(0x100, 3);
        t.set_predefined(0x101, "world");
        t.set_predefined(0x102, "self");
        assert_eq!(t.get(0x101), Some(&"world"));
        assert_eq!(t.get(0x102), Some(&"self"));
        assert_eq!(t.get(0x100), None); // the NULL handle maps to nothing
        for bad in [0, -1, 0xff, 0x103, i32::MIN, i32::MAX, USER_BASE] {
            assert_eq!(t.get(bad), None, "{bad:#x}");
        }
    }

    #[test]
    fn user_handles_are_outside_the_reserved_range_and_reused() {
        let mut t = Table::new(0x100, 3);
        let a = t.insert(1);
        let b = t.insert(2);
        assert!(a >= 4096 && b >= 4096 && a != b);
        assert_eq!(t.get(a), Some(&1));
        assert_eq!(t.remove(a), Some(1));
        assert_eq!(t.get(a), None);
        assert_eq!(t.remove(a), None, "double free is detected");
        let c = t.insert(3);
        assert_eq!(c, a, "freed slot is reused");
        *t.get_mut(c).unwrap() = 4;
        assert_eq!(t.get(c), Some(&4));
        assert_eq!(t.remove(0x101), None, "predefined handles cannot be freed");
    }
}
