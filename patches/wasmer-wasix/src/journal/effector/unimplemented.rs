#[derive(Debug, Clone)]
pub struct JournalEffector {}

impl JournalEffector {}
