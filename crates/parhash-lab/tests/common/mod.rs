//! Checks shared by the integration tests.

/// Validates a report page: well-formed (an XML parser accepts it), an `html` root with a
/// `head` holding a `title` and a `body`, every plot inline (`svg` elements, PNGs as data URIs),
/// and nothing fetched from elsewhere (no `script`, `link`, `iframe` or `object` element, every
/// `src`/`href` a `data:` URI or an in-page `#fragment`, no `url(` in styles). Returns the
/// number of `table` and `svg` elements.
pub fn check_html(html: &str) -> (usize, usize) {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc =
        roxmltree::Document::parse_with_options(html, options).expect("report.html is well-formed");
    let root = doc.root_element();
    assert!(root.has_tag_name("html"), "root is {:?}", root.tag_name());
    let head = root
        .children()
        .find(|n| n.has_tag_name("head"))
        .expect("head");
    assert!(head.children().any(|n| n.has_tag_name("title")), "title");
    assert!(root.children().any(|n| n.has_tag_name("body")), "body");
    for node in doc.descendants().filter(|n| n.is_element()) {
        let name = node.tag_name().name();
        assert!(
            !matches!(name, "script" | "link" | "iframe" | "object" | "embed"),
            "external or active element <{name}>"
        );
        for attr in node.attributes() {
            if matches!(attr.name(), "src" | "href")
                && node.tag_name().namespace() != Some("http://www.w3.org/2000/svg")
            {
                let v = attr.value();
                assert!(
                    v.starts_with("data:") || v.starts_with('#'),
                    "<{name} {}=\"{v}\"> refers outside the page",
                    attr.name()
                );
            }
        }
    }
    assert!(!html.contains("url("), "styles refer to outside resources");
    let count = |tag: &str| doc.descendants().filter(|n| n.has_tag_name(tag)).count();
    (count("table"), count("svg"))
}
