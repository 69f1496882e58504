//! Which characters a URL may not contain as they are.
//!
//! The URL Standard allows none of the C0 controls, space, `"`, `<`, `>`, `\`, `^`,
//! `` ` ``, `{`, `|`, `}` and DEL anywhere in a URL: they are what [`NOT_IN_URL`] holds,
//! for `percent_encoding::utf8_percent_encode`, which writes each of their bytes as `%`
//! and two uppercase hexadecimal digits. Every other printable ASCII character, `%`
//! included, is left for the caller to decide: a `%` that already starts an escape must
//! stay as it is. `utf8_percent_encode` also encodes every byte of a non-ASCII
//! character, which a caller that keeps readable IRIs encodes only when it must.

use percent_encoding::{AsciiSet, CONTROLS};

/// The ASCII characters that are never valid in a URL: the C0 controls (0x00–0x1F),
/// space, `"`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}` and DEL (0x7F).
pub const NOT_IN_URL: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'<')
    .add(b'>')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

#[cfg(test)]
mod tests {
    use super::*;
    use percent_encoding::utf8_percent_encode;

    #[test]
    fn exactly_the_ascii_characters_a_url_may_not_contain() {
        let encoded: Vec<u8> = (0..=0x7Fu8)
            .filter(|&b| {
                let c = [b];
                let text = std::str::from_utf8(&c).unwrap();
                utf8_percent_encode(text, NOT_IN_URL).to_string() != text
            })
            .collect();
        let mut expected: Vec<u8> = (0..0x20).collect();
        expected.extend(b" \"<>\\^`{|}");
        expected.push(0x7F);
        expected.sort_unstable();
        assert_eq!(encoded, expected);
    }

    #[test]
    fn encodes_with_uppercase_hex_and_every_byte_of_non_ascii() {
        let encoded = utf8_percent_encode("a b\u{7F}{é}%41\n", NOT_IN_URL).to_string();
        assert_eq!(encoded, "a%20b%7F%7B%C3%A9%7D%41%0A");
    }
}
