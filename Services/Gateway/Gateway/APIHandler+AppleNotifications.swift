import Contracts
import HTTPServer

extension APIHandler {
    /// Apple's server-to-server notifications.
    static let appleNotificationRoutes: [Route] = []
}
