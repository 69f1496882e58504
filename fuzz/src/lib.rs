//! Checks shared by the fuzz targets: what every piece of generated HTML must look like.
//!
//! The targets call the library on arbitrary input and then assert properties of the
//! output with these checks, so that a finding is not only a crash but also markup that
//! could run in a reader's browser, a slug that is not URL-safe, or a nondeterministic
//! result.

/// Elements that TeX-to-HTML output may contain: the text-mode markup, the box around
/// wide formulas and the MathML elements the sanitizer lets through.
pub const TEX_ELEMENTS: &[&str] = &[
    "b",
    "i",
    "code",
    "u",
    "sup",
    "sub",
    "span",
    "math",
    "mrow",
    "mi",
    "mo",
    "mn",
    "mtext",
    "mspace",
    "msub",
    "msup",
    "msubsup",
    "munder",
    "mover",
    "munderover",
    "mfrac",
    "msqrt",
    "mroot",
    "mtable",
    "mtr",
    "mtd",
    "mstyle",
    "mpadded",
    "mphantom",
    "menclose",
    "semantics",
    "annotation",
];

/// Attributes that TeX-to-HTML output may carry.
pub const TEX_ATTRIBUTES: &[&str] = &[
    "display",
    "class",
    "style",
    "stretchy",
    "symmetric",
    "minsize",
    "maxsize",
    "movablelimits",
    "largeop",
    "linethickness",
    "mathvariant",
    "width",
    "height",
    "depth",
    "displaystyle",
    "scriptlevel",
    "lspace",
    "rspace",
    "accent",
    "accentunder",
    "fence",
    "form",
    "separator",
    "notation",
    "columnalign",
    "rowalign",
    "encoding",
];

/// Checks that `html` is made only of `elements` with `attributes` (double-quoted values),
/// properly nested, with every other `<`, `>`, `"`, `'` escaped and every `&` starting a
/// character reference. Returns what is wrong, if anything.
pub fn check_markup(html: &str, elements: &[&str], attributes: &[&str]) -> Result<(), String> {
    let bytes = html.as_bytes();
    let mut open: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' => i = read_tag(html, i, elements, attributes, &mut open)?,
            b'&' => i = read_reference(html, i)?,
            b'>' | b'"' | b'\'' => return Err(format!("unescaped {:?} at {i}", bytes[i] as char)),
            _ => i += 1,
        }
    }
    match open.last() {
        Some(name) => Err(format!("<{name}> is never closed")),
        None => Ok(()),
    }
}

/// Reads the tag at `html[start]` (a `<`), returning the index after it.
fn read_tag<'h>(
    html: &'h str,
    start: usize,
    elements: &[&str],
    attributes: &[&str],
    open: &mut Vec<&'h str>,
) -> Result<usize, String> {
    let bytes = html.as_bytes();
    let closing = bytes.get(start + 1) == Some(&b'/');
    let name_start = start + 1 + usize::from(closing);
    let name_end = name_start
        + bytes[name_start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
    let name = &html[name_start..name_end];
    if !elements.contains(&name) {
        return Err(format!("element {name:?} at {start}"));
    }
    if closing {
        if bytes.get(name_end) != Some(&b'>') {
            return Err(format!("malformed closing tag at {start}"));
        }
        if open.pop() != Some(name) {
            return Err(format!("</{name}> at {start} closes nothing open"));
        }
        return Ok(name_end + 1);
    }
    let mut i = name_end;
    loop {
        match bytes.get(i) {
            Some(b' ') => i += 1,
            Some(b'>') => {
                open.push(name);
                return Ok(i + 1);
            }
            Some(b'/') if bytes.get(i + 1) == Some(&b'>') => return Ok(i + 2),
            Some(_) => i = read_attribute(html, i, attributes)?,
            None => return Err(format!("unterminated tag at {start}")),
        }
    }
}

/// Reads `name="value"` at `html[start]`, returning the index after it.
fn read_attribute(html: &str, start: usize, attributes: &[&str]) -> Result<usize, String> {
    let rest = &html[start..];
    let eq = rest
        .find("=\"")
        .ok_or(format!("attribute without value at {start}"))?;
    let name = &rest[..eq];
    if !attributes.contains(&name) {
        return Err(format!("attribute {name:?} at {start}"));
    }
    let value_len = rest[eq + 2..]
        .find('"')
        .ok_or(format!("unterminated attribute at {start}"))?;
    let value = &rest[eq + 2..eq + 2 + value_len];
    if value.contains(['<', '>', '\'']) {
        return Err(format!("unescaped markup in attribute {name} at {start}"));
    }
    let lower = value.to_ascii_lowercase();
    if lower.contains("javascript:") || lower.contains("url(") || lower.contains("expression") {
        return Err(format!("active content in attribute {name} at {start}"));
    }
    Ok(start + eq + 2 + value_len + 1)
}

/// Reads the character reference at `html[start]` (a `&`), returning the index after it.
fn read_reference(html: &str, start: usize) -> Result<usize, String> {
    let body = html[start + 1..]
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'#')
        .count();
    if body == 0 || html.as_bytes().get(start + 1 + body) != Some(&b';') {
        return Err(format!("bare & at {start}"));
    }
    Ok(start + body + 2)
}

/// Whether a tag of `html` runs script, in any letter case: a `script`, `iframe`,
/// `object`, `embed` or `style` element, an `on...` event handler attribute or a
/// `javascript:` URL. Text between tags is not looked at (it is escaped elsewhere).
pub fn has_active_markup(html: &str) -> bool {
    let lower = html.to_ascii_lowercase();
    lower.split('<').skip(1).any(|tag| {
        let tag = tag.split('>').next().unwrap_or("");
        let mut words = tag.split_ascii_whitespace();
        let name = words.next().unwrap_or("").trim_start_matches('/');
        ["script", "iframe", "object", "embed", "style"]
            .iter()
            .any(|active| name.starts_with(active))
            || words.any(|attr| attr.starts_with("on") && attr.contains('='))
            || tag.contains("javascript:")
    })
}

/// Decodes the character references of an attribute value written by pulldown-cmark
/// (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&#39;`); others are left as they are.
pub fn unescape_attribute(value: &str) -> String {
    value
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tex(html: &str) -> Result<(), String> {
        check_markup(html, TEX_ELEMENTS, TEX_ATTRIBUTES)
    }

    #[test]
    fn accepts_what_the_converter_writes() {
        assert_eq!(
            tex("<b>V</b>ariational &amp; <math display=\"inline\"><mi>x</mi></math>"),
            Ok(())
        );
        assert_eq!(tex("<mspace width=\"1em\"/>"), Ok(()));
    }

    #[test]
    fn rejects_raw_markup_and_bad_nesting() {
        assert!(tex("<script>").is_err());
        assert!(tex("a > b").is_err());
        assert!(tex("AT&T").is_err());
        assert!(tex("<b><i></b></i>").is_err());
        assert!(tex("<b>").is_err());
        assert!(tex("<span onclick=\"x\">").is_err());
        assert!(tex("<span style=\"background:url(x)\"></span>").is_err());
    }

    #[test]
    fn finds_active_markup_in_any_case() {
        assert!(has_active_markup("<ScRiPt>"));
        assert!(has_active_markup("<img src=x onerror=alert(1)>"));
        assert!(has_active_markup("<a href=\"JavaScript:x\">"));
        assert!(!has_active_markup("<p>on the one hand = x</p>"));
        assert!(!has_active_markup("text about javascript: &lt;script&gt;"));
    }
}
