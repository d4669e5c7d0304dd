import Foundation
import StratusCrypto
import Testing

@Suite struct ConstantTimeTests {
    /// Equal bytes compare equal; any difference or length mismatch compares unequal.
    @Test func comparesBytes() {
        let a = Data("0123456789abcdef".utf8)
        #expect(ConstantTime.isEqual(a, Data(a)))
        #expect(ConstantTime.isEqual(Data(), Data()))
        #expect(!ConstantTime.isEqual(a, a.dropLast()))
        #expect(!ConstantTime.isEqual(a, Data()))
        for index in a.indices {
            var other = a
            other[index] ^= 0x01
            #expect(!ConstantTime.isEqual(a, other))
        }
    }

    /// Slices with a non-zero start index compare by content.
    @Test func comparesSlicesByContent() {
        let whole = Data("xxabcxx".utf8)
        #expect(ConstantTime.isEqual(whole[2..<5], Data("abc".utf8)))
    }

    /// Strings compare by their UTF-8 bytes.
    @Test func comparesStrings() {
        #expect(ConstantTime.isEqual("token", "token"))
        #expect(!ConstantTime.isEqual("token", "tokem"))
        #expect(!ConstantTime.isEqual("token", "token "))
        #expect(ConstantTime.isEqual("", ""))
        #expect(!ConstantTime.isEqual("é", "e\u{301}"), "no Unicode normalization: bytes differ")
    }
}
