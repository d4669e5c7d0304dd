import StratusWire
import Testing

/// The container identifier rule, checked by byte: ASCII letters and digits, `.`, `-`, `_`, after `iCloud.`.
@Suite struct ContainerIdentifierTests {
    @Test func validIdentifiersPass() {
        for identifier in ["iCloud.com.example.Notes", "iCloud.x", "iCloud.A-b_C.9", "iCloud.."] {
            #expect(ContainerIdentifier.problem(with: identifier) == nil, "\(identifier)")
        }
    }

    /// Letters and digits of other scripts, combining marks, controls and separators are refused,
    /// as `Character.isLetter`/`isNumber` limited to ASCII refused them.
    @Test func anythingBeyondTheAllowedBytesIsRefused() {
        let refused = [
            "", "iCloud.", "icloud.com.x", "iCloud", "iCloud.é", "iCloud.e\u{301}", "iCloud.٨", "iCloud.½", "iCloud.ｘ",
            "iCloud.a b", "iCloud.a/b", "iCloud.a\r\nb", "iCloud.a\u{0}", "iCloud.a:b", "iCloud.🚀", "ıCloud.x",
        ]
        for identifier in refused {
            #expect(ContainerIdentifier.problem(with: identifier) != nil, "\(identifier)")
        }
        #expect(ContainerIdentifier.problem(with: "com.example.Notes")?.contains("did you mean 'iCloud.com.example.Notes'?") == true)
    }
}
