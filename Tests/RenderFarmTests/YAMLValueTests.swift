import Testing

@testable import RenderFarm

/// The YAML writer of generated job descriptions (OpenJD, Kubernetes); `make openjd-test` reads its output back
/// with PyYAML, `openjd check` and `kubernetes-validate`.
@Suite("YAML writer")
struct YAMLValueTests {
    @Test(
        "block mappings and sequences, two spaces a level; maps in lists start on the dash line; nil entries left out")
    func shape() {
        let value = YAMLValue.map([
            "name": .string("job"),
            "count": .integer(3),
            "absent": nil,
            "steps": .list([
                .map(["name": .string("a"), "args": .list([.string("x"), .integer(1)])]),
                .list([.bool(true)]),
            ]),
            "empty": .list([]),
            "none": .map([(key: String, value: YAMLValue)]()),
        ])
        #expect(
            value.document == """
                name: "job"
                count: 3
                steps:
                  - name: "a"
                    args:
                      - "x"
                      - 1
                  - - true
                empty: []
                none: {}

                """)
    }

    @Test(
        "every string is double-quoted, with quotes, backslashes and non-printable characters escaped",
        arguments: [
            ("plain", #""plain""#), ("a \"b\" \\c", #""a \"b\" \\c""#), ("1.0", #""1.0""#), ("null", #""null""#),
            ("a\nb\tc\r", #""a\nb\tc\r""#), ("x\u{1B}[31m\u{7F}", #""x\x1B[31m\x7F""#),
            ("\u{85}\u{FEFF}", #""\u0085\uFEFF""#),
            ("#: - {{Param.X}} ü 💜", "\"#: - {{Param.X}} ü 💜\""),
        ])
    func quoting(text: String, expected: String) {
        #expect(YAMLValue.quoted(text) == expected)
    }

    @Test("keys are plain when they are names, quoted otherwise")
    func keys() {
        #expect(YAMLValue.key("app.kubernetes.io/name") == "app.kubernetes.io/name")
        #expect(YAMLValue.key("a key: x") == #""a key: x""#)
        #expect(YAMLValue.key("1st") == #""1st""#)
    }
}
