// The types doc-comment examples use without declaring them, declared here by hand (the values
// they use are the "givens" of Scripts/extract-doc-examples.swift). An example must not declare
// a type of the same name at file scope.
import StratusHTTP
import StratusStore

/// A book of the examples' library model (`Book` ↔ `Author`); `ManagedObjectWrapper`'s examples add
/// its other properties in extensions of their own.
struct Book: ManagedObjectWrapper {
    static let entityName = "Book"
    let object: ManagedObject
    init(object: ManagedObject) { self.object = object }

    var title: String {
        get { attribute("title") }
        nonmutating set { setAttribute("title", newValue) }
    }
}

/// An author of the examples' library model.
struct Author: ManagedObjectWrapper {
    static let entityName = "Author"
    let object: ManagedObject
    init(object: ManagedObject) { self.object = object }
}

/// A request body written to a file as it arrives, up to a limit (what `HeadDecision.stream` takes).
final class UploadFile: HTTPBodySink {
    let limit: Int

    init(limit: Int) throws {
        self.limit = limit
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) {}
    func finish() throws(HTTPError) {}
    func close() {}
}
