//! The letters and accents of TeX's text mode: the one table that both the HTML and text
//! conversion ([`super::render_tex`]) and the citation keys ([`crate::cite`]) read.

/// A control word that stands for a letter (`\ss`, `\o`, `\th`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LetterCommand {
    /// The command's name, without the backslash.
    pub name: &'static str,
    /// The letter it stands for (`\SS` stands for two).
    pub letter: &'static str,
    /// Whether plain TeX's text fonts (LaTeX's OT1 encoding) have the letter, as opposed to
    /// the letters that only the T1 encoding added (`\SS`, `\dh`, `\th`, `\dj`, `\ng` and
    /// their capitals).
    pub in_ot1: bool,
}

/// Every letter command, with its letter.
const LETTER_COMMANDS: [LetterCommand; 22] = [
    letter("ss", "ß", true),
    letter("SS", "SS", false),
    letter("o", "ø", true),
    letter("O", "Ø", true),
    letter("l", "ł", true),
    letter("L", "Ł", true),
    letter("aa", "å", true),
    letter("AA", "Å", true),
    letter("ae", "æ", true),
    letter("AE", "Æ", true),
    letter("oe", "œ", true),
    letter("OE", "Œ", true),
    letter("i", "ı", true),
    letter("j", "ȷ", true),
    letter("dh", "ð", false),
    letter("DH", "Ð", false),
    letter("th", "þ", false),
    letter("TH", "Þ", false),
    letter("dj", "đ", false),
    letter("DJ", "Đ", false),
    letter("ng", "ŋ", false),
    letter("NG", "Ŋ", false),
];

const fn letter(name: &'static str, letter: &'static str, in_ot1: bool) -> LetterCommand {
    LetterCommand {
        name,
        letter,
        in_ot1,
    }
}

/// The letter command named `name` (without its backslash), if it is one.
pub(crate) fn letter_command(name: &str) -> Option<&'static LetterCommand> {
    LETTER_COMMANDS.iter().find(|command| command.name == name)
}

/// The dotless letter that `\i` and `\j` stand for, on which accents are put (`\'\i`).
pub(crate) fn dotless_letter(name: &str) -> Option<&'static str> {
    match name {
        "i" | "j" => letter_command(name).map(|command| command.letter),
        _ => None,
    }
}

/// Accent control words (`\c`, `\v`, …) and their combining characters.
pub(crate) fn letter_accent(name: &str) -> Option<char> {
    Some(match name {
        "c" => '\u{327}',
        "v" => '\u{30c}',
        "H" => '\u{30b}',
        "u" => '\u{306}',
        "k" => '\u{328}',
        "r" => '\u{30a}',
        "d" => '\u{323}',
        "b" => '\u{331}',
        "t" => '\u{361}',
        _ => return None,
    })
}

/// Accent control symbols (`\'`, `\"`, …) and their combining characters.
pub(crate) fn symbol_accent(c: char) -> Option<char> {
    Some(match c {
        '\'' => '\u{301}',
        '`' => '\u{300}',
        '^' => '\u{302}',
        '"' => '\u{308}',
        '~' => '\u{303}',
        '=' => '\u{304}',
        '.' => '\u{307}',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letter_commands() {
        assert_eq!(letter_command("ss").map(|c| c.letter), Some("ß"));
        assert_eq!(letter_command("NG").map(|c| c.letter), Some("Ŋ"));
        assert_eq!(letter_command("textbf"), None);
        assert_eq!(letter_command(""), None);
        let ot1: Vec<&str> = LETTER_COMMANDS
            .iter()
            .filter(|c| c.in_ot1)
            .map(|c| c.name)
            .collect();
        assert_eq!(
            ot1,
            ["ss", "o", "O", "l", "L", "aa", "AA", "ae", "AE", "oe", "OE", "i", "j"]
        );
    }

    #[test]
    fn names_are_unique() {
        for (i, command) in LETTER_COMMANDS.iter().enumerate() {
            assert!(
                LETTER_COMMANDS[i + 1..]
                    .iter()
                    .all(|other| other.name != command.name),
                "{}",
                command.name
            );
            assert!(letter_accent(command.name).is_none(), "{}", command.name);
        }
    }

    #[test]
    fn dotless_letters_and_accents() {
        assert_eq!(dotless_letter("i"), Some("\u{131}"));
        assert_eq!(dotless_letter("j"), Some("\u{237}"));
        assert_eq!(dotless_letter("o"), None);
        assert_eq!(letter_accent("v"), Some('\u{30c}'));
        assert_eq!(letter_accent("vv"), None);
        assert_eq!(symbol_accent('"'), Some('\u{308}'));
        assert_eq!(symbol_accent('&'), None);
    }
}
