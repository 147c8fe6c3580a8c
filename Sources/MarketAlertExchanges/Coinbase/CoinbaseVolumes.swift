import Foundation
import MarketAlertCore
import MarketAlertKit

/// Coinbase's 24 h volumes are unknown: the public Exchange API has no bulk ticker (`/products/{id}/ticker`
/// and `/stats` are per product), and its one bulk volume answer, `GET /products/volume-summary`, documents
/// neither the unit of `spot_volume_24hour` (base or quote) nor a price to convert it with. So this source
/// makes no request and knows no volume: an `assets: all` rule counts Coinbase's markets, and a
/// `min_volume_24h` leaves them out (an unknown volume is never taken as zero or as liquid).
package struct CoinbaseVolumes: MarketVolumeSource {
    package let client: ExchangeClient

    package func fetchVolumes() async throws(SourceError) -> [String: Double] { [:] }
}
