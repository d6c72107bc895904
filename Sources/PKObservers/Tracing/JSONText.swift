/// A growing UTF-8 JSON text, with just what the trace writer needs.
struct JSONText {
    var bytes: [UInt8] = []

    /// Appends `text` as it is (it must be valid JSON in place).
    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends `text` as a JSON string literal, escaping quotes, backslashes and control characters.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends an array of JSON strings.
    mutating func strings(_ texts: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (position, text) in texts.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            string(text)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Appends `nanoseconds` as a number of microseconds with three decimals (exact, no floating point).
    mutating func microseconds(_ nanoseconds: UInt64) {
        raw(String(nanoseconds / 1000))
        let fraction = nanoseconds % 1000
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }
}
