//! HTML built by construction: the only way to put a value into a page is [`render`], which
//! escapes every text value ([`escape`]); markup comes only from `&'static str` templates and from
//! other [`Html`] values built the same way. (The participant page is static and fills itself in
//! with `textContent`; the researcher's overview is rendered here.)

use std::fmt::Display;

/// Markup known to be safe: a template with every value escaped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Html(String);

impl Html {
    /// The markup.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Appends another piece of markup.
    pub fn push(&mut self, other: &Html) {
        self.0.push_str(&other.0);
    }

    /// The markup as a string (for the response body).
    pub fn into_string(self) -> String {
        self.0
    }
}

/// A value for one `{name}` of a template: text (escaped) or markup already built by [`render`].
#[derive(Debug)]
pub enum Value<'a> {
    /// Any text: escaped.
    Text(String),
    /// Markup built by [`render`]: inserted as is.
    Html(&'a Html),
}

/// Text to escape.
pub fn text(v: impl Display) -> Value<'static> {
    Value::Text(v.to_string())
}

/// `s` with `&`, `<`, `>`, `"` and `'` escaped: safe as element text and inside a quoted attribute.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Fills `template`'s `{name}` placeholders with `values` (text escaped); `{{` and `}}` are literal
/// braces. A placeholder without a value is left as written (the tests render every template).
pub fn render(template: &'static str, values: &[(&str, Value<'_>)]) -> Html {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        let close = if tail.starts_with('{') { tail.find('}') } else { None };
        let found = close.and_then(|j| values.iter().find(|(k, _)| *k == &tail[1..j]).map(|(_, v)| (j, v)));
        match found {
            Some((j, Value::Text(t))) => {
                out.push_str(&escape(t));
                rest = &tail[j + 1..];
            }
            Some((j, Value::Html(h))) => {
                out.push_str(&h.0);
                rest = &tail[j + 1..];
            }
            None => {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    Html(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_is_escaped_and_markup_only_nests() {
        let evil = "<script>alert('x')</script>\"&";
        let row = render("<td><a href=\"/p/{t}/\">{t}</a></td>", &[("t", text(evil))]);
        assert_eq!(
            row.as_str(),
            "<td><a href=\"/p/&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;/\">\
             &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;</a></td>"
        );
        let page = render("<table>{rows}</table>{{literal}} {missing}", &[("rows", Value::Html(&row))]);
        assert!(page.as_str().starts_with("<table><td><a href"));
        assert!(page.as_str().ends_with("</table>{literal} {missing}"));
        assert!(!page.as_str().contains("<script>"));
    }
}
