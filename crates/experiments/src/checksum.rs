//! Checksums of the files bohf writes: FNV-1a 64 (fast, no dependency; it detects accidental
//! changes such as an edited digit or a truncated file, not deliberate forgery).
//!
//! A text file carries its checksum as a last line `# checksum fnv1a64:<16 hex digits>` over every
//! byte before that line ([`with_checksum_line`], [`strip_checksum_line`]); readers that skip `#`
//! comment lines (e.g. pandas with `comment='#'`) read such a CSV as before.

/// FNV-1a, 64 bit.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// `fnv1a64:` and the 16 hex digits of [`fnv1a64`].
pub fn fnv1a64_tag(bytes: &[u8]) -> String {
    format!("fnv1a64:{:016x}", fnv1a64(bytes))
}

/// The prefix of the checksum line.
pub const CHECKSUM_LINE_PREFIX: &str = "# checksum ";

/// `text` (which must end with a line break, or be empty) followed by its checksum line.
pub fn with_checksum_line(text: &str) -> String {
    format!("{text}{CHECKSUM_LINE_PREFIX}{}\n", fnv1a64_tag(text.as_bytes()))
}

/// Why a checksum line does not vouch for its text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChecksumError {
    /// The last line is not a checksum line (an old file, or a truncated one).
    #[error("it has no `# checksum fnv1a64:…` last line (truncated, or written by an older bohf)")]
    Missing,
    /// The text does not match its checksum.
    #[error("its content does not match its checksum (stored {stored}, computed {computed}): it was changed")]
    Mismatch {
        /// The checksum in the file.
        stored: String,
        /// The checksum of the text.
        computed: String,
    },
}

/// The text before a valid checksum line (see [`with_checksum_line`]).
pub fn strip_checksum_line(text: &str) -> Result<&str, ChecksumError> {
    let trimmed = text.strip_suffix('\n').ok_or(ChecksumError::Missing)?;
    let start = trimmed.rfind('\n').map_or(0, |i| i + 1);
    let (body, last) = text.split_at(start);
    let stored = last.trim_end_matches('\n').strip_prefix(CHECKSUM_LINE_PREFIX).ok_or(ChecksumError::Missing)?;
    let computed = fnv1a64_tag(body.as_bytes());
    if stored != computed {
        return Err(ChecksumError::Mismatch { stored: stored.to_string(), computed });
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_known_values() {
        // The published FNV-1a 64 test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn a_changed_digit_or_a_cut_is_detected() {
        let text = "a,b\n1,2.5\n3,4\n";
        let signed = with_checksum_line(text);
        assert!(signed.starts_with(text) && signed.ends_with('\n'));
        assert_eq!(signed.lines().last().unwrap().len(), "# checksum fnv1a64:".len() + 16);
        assert_eq!(strip_checksum_line(&signed), Ok(text));
        assert!(matches!(strip_checksum_line(&signed.replace("2.5", "2.6")), Err(ChecksumError::Mismatch { .. })));
        assert_eq!(strip_checksum_line(text), Err(ChecksumError::Missing));
        assert_eq!(strip_checksum_line(&signed[..signed.len() - 1]), Err(ChecksumError::Missing));
        assert_eq!(strip_checksum_line(""), Err(ChecksumError::Missing));
        assert_eq!(strip_checksum_line(&with_checksum_line("")), Ok(""));
    }
}
