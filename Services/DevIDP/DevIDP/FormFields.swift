import Foundation
import HTTPServer

/// The fields of an OAuth request: the `application/x-www-form-urlencoded` body, else the query.
enum FormFields {
    /// Body fields win over query arguments of the same name.
    static func of(_ request: HTTPRequest) -> [String: String] {
        var fields = request.query
        let text = String(decoding: request.body, as: UTF8.self)
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ") }
            guard let name = parts[0].removingPercentEncoding else { continue }
            fields[name] = parts.count == 2 ? parts[1].removingPercentEncoding : ""
        }
        return fields
    }
}
