/// A coding key built at run time, for paths, array indices and dynamic object keys.
struct WireCodingKey: CodingKey, Hashable {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    init(_ string: String) {
        self.init(stringValue: string)
    }

    init(index: Int) {
        self.init(intValue: index)
    }
}

/// Renders a coding path as `operations[3].record.fields.due.value`.
func renderCodingPath(_ path: [any CodingKey]) -> String {
    var text = ""
    for key in path {
        if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == String(index) {
            text += "[\(index)]"
        } else {
            if !text.isEmpty { text += "." }
            text += key.stringValue
        }
    }
    return text
}
