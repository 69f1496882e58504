#![no_main]
//! TeX to HTML/MathML and to plain text, on arbitrary text: the HTML is only the
//! converter's own markup with everything else escaped (no `<script`, no event
//! handlers, properly nested), the result is deterministic, text without TeX comes out
//! as it went in, and every math fragment that converts is MathML in the HTML.
//!
//! A text of one line is converted a second time, which must give the same result; a
//! longer one is also read as a title (its first line) and an abstract with the macros
//! the title defines, as a paper's texts are.

use libfuzzer_sys::fuzz_target;
use profilegen::tex::{math_fragments, render_tex, render_tex_with, Definitions};
use profilegen_fuzz::{check_markup, has_active_markup, TEX_ATTRIBUTES, TEX_ELEMENTS};

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    let rendering = render_tex(&input);
    check_html(&input, &rendering.html);
    assert!(rendering.warnings.iter().all(|w| !w.is_empty()));

    let plain = !input.contains(['$', '\\', '{', '}', '~', '`'])
        && !input.contains("--")
        && !input.contains("''");
    if plain {
        assert_eq!(rendering.text, input, "text without TeX is kept as it is");
        assert!(rendering.warnings.is_empty());
    }
    // A fragment made only of macro definitions converts to nothing.
    let converted = math_fragments(&input)
        .iter()
        .filter(|f| f.error.is_none() && !defines(&f.tex))
        .count();
    assert!(rendering.html.matches("<math").count() >= converted);

    match input.split_once('\n') {
        // Converting again gives the same result.
        None => assert_eq!(render_tex_with(&input, &mut Definitions::new()), rendering),
        Some((title, abstract_text)) => {
            let mut definitions = Definitions::new();
            for text in [title, abstract_text] {
                let rendering = render_tex_with(text, &mut definitions);
                check_html(text, &rendering.html);
            }
        }
    }
});

fn check_html(input: &str, html: &str) {
    if let Err(problem) = check_markup(html, TEX_ELEMENTS, TEX_ATTRIBUTES) {
        panic!("{problem} in the HTML of {input:?}:\n{html}");
    }
    assert!(!has_active_markup(html), "{html}");
}

/// Whether math may define macros (`\newcommand`, `\def`, `\let`, ...).
fn defines(tex: &str) -> bool {
    ["command", "def", "let", "Declare"]
        .iter()
        .any(|word| tex.contains(word))
}
