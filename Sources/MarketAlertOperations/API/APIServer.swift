import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import MarketAlertConfigReader
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The HTTP/1 server around `APIResponder`, built from hummingbird's parts rather than its `Application`:
/// `Application.run` adds a `DateCache` service that wakes the process every second to reformat the `Date`
/// header, whether or not anyone asks. Here the header is formatted per response instead: the daemon
/// answers a few requests a minute, not thousands a second, and an idle daemon stays asleep.
package enum APIServer {
    package static func service(
        responder: APIResponder, address: BindAddress, logger: Logger, onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) throws -> any Service {
        // Each connection must send a whole request within 10 s of its start or its last answer, one address
        // holds at most 32, and past 256 the oldest idle one gives way (`ConnectionGuard`); the listener's own
        // limit is only a backstop on file descriptors, so a monitor's `/healthz` always finds a seat.
        let connections = ConnectionGuard()
        return try HTTPServerBuilder.http1(
            configuration: .init(additionalChannelHandlers: [ConnectionGuardHandler(connections)], idleTimeout: .seconds(15))
        ).buildServer(
            configuration: ServerConfiguration(
                address: address, serverName: "marketalertd", availableConnectionsDelegate: MaximumAvailableConnections(512)),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger,
            responder: { request, writer, channel in
                var response = await responder.respond(to: request, client: channel.remoteAddress?.ipAddress)
                response.headers[.date] = httpDate(Date())
                response.headers[.server] = "marketalertd"
                for (name, value) in securityHeaders { response.headers[name] = value }
                try await writer.write(response: response.head, body: response.body)
            },
            onServerRunning: onServerRunning)
    }

    /// Sent with every answer, page and API alike: nothing may load or run but the page's own inline style
    /// and the SVG it embeds, the page may not be framed, and no answer is sniffed into another type.
    package static let securityHeaders: [(HTTPFields.Element.Name, String)] = [
        (.contentSecurityPolicy, "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'"),
        (.xContentTypeOptions, "nosniff"),
    ]

    /// RFC 9110 IMF-fixdate, e.g. `Mon, 23 Nov 2026 14:30:00 GMT`.
    package static func httpDate(_ date: Date) -> String { date.formatted(imfFixdate) }

    private static let imfFixdate = Date.VerbatimFormatStyle(
        format: "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .padded(4)) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) GMT",
        locale: Locale(identifier: "en_US_POSIX"), timeZone: .gmt, calendar: Calendar(identifier: .gregorian))
}
