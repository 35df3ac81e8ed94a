import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: a `URLSession` (its own ephemeral one unless given), so no cookies
/// or cached answers of the auth API linger on disk.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// Uses `session`, or an ephemeral session of its own. A session of its own drops `Authorization` from a
    /// redirect to another origin; give one of yours a delegate that does the same (see `RedirectGuard`).
    public init(session: URLSession? = nil) {
        self.session = session ?? URLSession(configuration: .ephemeral, delegate: RedirectGuard(), delegateQueue: nil)
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request, delegate: RedirectGuard())
        guard let http = response as? HTTPURLResponse else {
            throw TransportError.invalidResponse("The answer is not an HTTP response.")
        }
        return (data, http)
    }
}

/// Follows redirects within the request's origin. One that leaves it is followed without `Authorization`
/// (a 3xx from the API must not carry the access token to another host), and not at all for a request with
/// a body or a method other than GET and HEAD: the client's logins, refreshes and links carry a provider or
/// refresh token in the body, which a 307 or 308 would send on. The 3xx itself is then the answer. Set as
/// the session's delegate (Linux's Foundation asks only the session's) and as each task's.
final class RedirectGuard: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        var next = request
        let from = (task.currentRequest ?? task.originalRequest)?.url.flatMap(Origin.init)
        if from == nil || from != request.url.flatMap(Origin.init) {
            let original = task.originalRequest
            let method = original?.httpMethod?.uppercased() ?? "GET"
            guard original?.httpBody == nil, original?.httpBodyStream == nil, method == "GET" || method == "HEAD" else {
                completionHandler(nil)
                return
            }
            next.setValue(nil, forHTTPHeaderField: "Authorization")
        }
        completionHandler(next)
    }
}
