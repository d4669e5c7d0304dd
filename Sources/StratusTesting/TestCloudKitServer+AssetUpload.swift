public import Foundation
public import StratusWire

extension TestCloudKitServer {
    /// Uploads `bytes` as a client does: `assets/upload` for one field, then a POST of the bytes
    /// to the URL it returns; the `singleFile` asset with its receipt, to save in a record.
    ///
    /// ```swift
    /// let asset = try await server.uploadAsset(Data("photo".utf8), recordType: "Photo", fieldName: "image", query: ada.query)
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The asset's content.
    ///   - recordType: The record type the asset is for.
    ///   - fieldName: The asset field.
    ///   - database: `private` by default.
    ///   - query: The credentials, as query parameters.
    /// - Returns: The asset the upload answered.
    /// - Throws: ``TestServerFailure`` when a step is refused or answers something else.
    public func uploadAsset(
        _ bytes: Data, recordType: String, fieldName: String, database: String = "private", query: [(String, String)]
    ) async throws -> Asset {
        let request = #"{"tokens":[{"recordType":"\#(recordType)","fieldName":"\#(fieldName)"}]}"#
        let reply = try await exchange("assets/upload", request, database: database, query: query)
        guard let text = reply.json["tokens"]?[0]?["url"]?.stringValue, let url = URL(string: text) else {
            throw TestServerFailure(description: "assets/upload answered \(reply.status): \(reply.text)")
        }
        let (status, body) = try await client.send("POST", url, body: bytes)
        guard status == 200 else {
            throw TestServerFailure(description: "the asset upload answered \(String(decoding: body, as: UTF8.self))")
        }
        return try WireCoding.decode(AssetUploadReceipt.self, from: body).singleFile
    }
}
