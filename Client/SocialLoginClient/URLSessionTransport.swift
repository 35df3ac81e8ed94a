import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: a `URLSession` (its own ephemeral one unless given), so no cookies
/// or cached answers of the auth API linger on disk.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// Uses `session`, or an ephemeral session of its own.
    public init(session: URLSession? = nil) {
        self.session = session ?? URLSession(configuration: .ephemeral)
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw TransportError.invalidResponse("The answer is not an HTTP response.")
        }
        return (data, http)
    }
}
