import Foundation

/// A fixed P-256 key pair made with `openssl ecparam -name prime256v1 -genkey -noout`, and
/// signatures made over known messages with `openssl dgst -sha256 -sign`.
enum Fixtures {
    static let privateKeyPEM = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIEviiYwsIH+ehYWfr/2nKnqUy2G0R/eG/vuGUgVvuXtcoAoGCCqGSM49
        AwEHoUQDQgAEeHj/hrbHc4buUNDIqyq5Qzr7QvyjA2clK2KPaXtyLe6teIqT+LYj
        C2Rvf+7DGrLsUhzRo12inlcIPAYJ4Rt8XA==
        -----END EC PRIVATE KEY-----

        """

    /// The output of `openssl ec -in k.pem -pubout`.
    static let publicKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEeHj/hrbHc4buUNDIqyq5Qzr7Qvyj
        A2clK2KPaXtyLe6teIqT+LYjC2Rvf+7DGrLsUhzRo12inlcIPAYJ4Rt8XA==
        -----END PUBLIC KEY-----

        """

    static let date = "2016-01-25T22:15:43Z"
    static let queryPath = "/database/1/iCloud.com.example.MyApp/development/public/records/query"
    static let queryBody = Data(#"{"query":{"recordType":"Item"}}"#.utf8)
    /// `openssl dgst -sha256 -binary body | base64`
    static let queryBodyHash = "v94ubc2eSfeBVawdNLNf9lFgsfIM9VINCJZputHBt6k="
    /// openssl's signature over `date:queryBodyHash:queryPath`.
    static let querySignature =
        "MEQCIAESx+H20VwO81Piux5BkYkUVZE4MeLykKlts18j8qi3AiBl9YAKHNQkG7BraaZlpmrrf4he/67YnNij+HB3uhvL2A=="

    static let zonesListPath = "/database/1/iCloud.com.example.MyApp/development/public/zones/list"
    /// openssl's signature over `date::zonesListPath` (empty body, empty hash field).
    static let zonesListSignature =
        "MEQCIEI2rVYSqcbLhwq+dRZ7iEo657kMCwlg9CvHNcrIy88sAiA4QauXuxKOgply0TqSQNu5MxWT+U3P94MjY2gp8V9f6A=="
}
