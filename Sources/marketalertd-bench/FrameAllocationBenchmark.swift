import CAllocationCounter
import Foundation
import MarketAlertCore
import MarketAlertIO
import NIOCore

/// Heap allocations per stream frame on the daemon's own path, after warm-up: `StreamIntake` decodes a
/// frame of each exchange's wire shape into its market table and, when the read is done, hands the quote to
/// `EngineCore`, which decides it (book, source health, the rule × asset it feeds) as the running daemon
/// does on its data path; and per full evaluation (2 rules × 50 assets over 8 exchanges). Counted on this
/// thread by replacing malloc and friends in this executable (`CAllocationCounter`). Budget: none.
enum FrameAllocationBenchmark {
    /// Frames per exchange and round: every watched asset several times, prices moving.
    static let framesPerExchange = 200
    static let rounds = 5

    struct Row {
        var exchange: ExchangeID
        var frames: Int
        var decoded: Int
        var allocations: UInt64
    }

    static func streams() -> [any ExchangeStreamProtocol] {
        ExchangeRegistry.standard.listed.compactMap(\.stream)
    }

    static func run(markets: BenchMarkets) -> (String, [Verdict]) {
        guard allocation_counter_available() != 0 else {
            return ("allocations: not countable on this platform (needs glibc)", [])
        }
        // The counter must see what allocates, or a zero below means nothing.
        allocation_counter_start()
        let probe = [Int](repeating: 1, count: Int.random(in: 64...128))
        let probeCount = allocation_counter_stop()
        Sink.consume(probe.count)
        guard probeCount >= 1 else {
            return ("", [Verdict(pass: false, text: "allocation counter counted no allocation of a new array")])
        }
        let start = Date()
        let core = EngineCore(engine: IncrementalBenchmark.settledEngine(markets: markets, at: start), clock: SystemClock())
        let link = StreamLinkID(1)
        var rows: [Row] = []
        for stream in streams() {
            let exchange = stream.exchange
            let quote = ExchangeRegistry.standard[exchange]?.wire.homeQuote ?? "USDT"
            let pairs = Set(markets.assets.map { MarketPair(base: $0, quote: quote) })
            let counters = StreamCounters()
            let intake = StreamIntake(
                decoder: stream, table: StreamMarketTable(pairs: pairs, marketID: stream.marketID), clock: SystemClock(),
                counters: counters
            ) { update in
                // As `ExchangeProducer.forward` and `EngineInbox.post` do while the engine loop runs.
                if case .quotes(let quotes) = update { _ = core.decideQuotes(quotes, from: exchange) }
            }
            intake.accept([StreamConnectionStateMachine.OpenLink(id: link, live: true)])
            // As on a connection, the exchange's answers to the subscription come first (Bitfinex numbers its
            // channels in them; Upbit and Bithumb answer with a snapshot, data not counted below).
            if let peer = ExchangeRegistry.standard[exchange]?.wire.stream {
                for message in stream.subscription(for: pairs.map(stream.marketID).sorted()).messages {
                    for reply in peer.persona(message, PersonaKnobs()) {
                        switch reply {
                        case .text(let text): _ = intake.take(ByteBuffer(string: text), compressed: false, from: link)
                        case .binary(let data): _ = intake.take(ByteBuffer(bytes: data), compressed: false, from: link)
                        }
                    }
                }
            }
            // Frames are made before counting: making them allocates, reading them must not. One set per round
            // (the warm-up's first), numbered on from the last, as an exchange numbers them: a replayed frame
            // would be dropped as out of order by the exchanges that number their updates.
            let sets: [[ByteBuffer]] = (0...rounds).map { round in
                (0..<framesPerExchange).compactMap { index in
                    let tick = round * framesPerExchange + index
                    let asset = markets.assets[(index * 7) % markets.assets.count]
                    let symbol = stream.marketID(MarketPair(base: asset, quote: quote))
                    return TickerFrames.frame(exchange, symbol: symbol, quote: quote, usdPrice: markets.usdPrice(asset), tick: tick)
                        .map { wire(exchange, $0) }
                }
            }
            let frames = sets[0]
            let primedData = counters.snapshot.dataFrames
            func read(_ set: [ByteBuffer]) {
                for frame in set {
                    _ = intake.take(frame, compressed: false, from: link)
                    intake.flush()
                }
            }
            read(sets[0])  // warm-up: buffers reach their working size
            allocation_counter_start()
            for round in 1...rounds { read(sets[round]) }
            let allocations = allocation_counter_stop()
            rows.append(Row(
                exchange: exchange, frames: frames.count * rounds, decoded: counters.snapshot.dataFrames - primedData, allocations: allocations))
        }
        // The quotes must have been decided by the engine: premium sides now priced by stream quotes.
        let streamSides = core.read { engine in
            engine.premiumTable().reduce(0) { count, row in
                count + [row.observation?.high, row.observation?.low].filter { $0?.quote.transport == .stream }.count
            }
        }
        let evaluation = fullEvaluation(markets: markets, at: start)
        var table = [["allocations after warm-up", "frames", "decoded as data", "allocations", "per frame"]]
        for row in rows {
            table.append([
                "\(row.exchange) frame → intake → engine", "\(row.frames)", "\(row.decoded)", "\(row.allocations)",
                String(format: "%.2f", Double(row.allocations) / Double(max(row.frames, 1))),
            ])
        }
        table.append(["full evaluation (2 rules × 50 assets × 8 exchanges)", "\(evaluation.count)", "", "\(evaluation.allocations)",
                      String(format: "%.2f", Double(evaluation.allocations) / Double(evaluation.count))])
        let frames = rows.reduce(0) { $0 + $1.frames }
        let frameAllocations = rows.reduce(0) { $0 + $1.allocations }
        // Every frame must have reached the engine as data (warm-up included), or the count is of something else.
        let undecoded = rows.filter { $0.decoded != $0.frames / rounds * (rounds + 1) }.map(\.exchange.rawValue)
        let verdicts = [
            Verdict(
                pass: frameAllocations == 0 && undecoded.isEmpty && streamSides > 0,
                text: "stream frame → engine allocations: \(frameAllocations) in \(frames) frames of 8 exchanges (budget 0)"
                    + (undecoded.isEmpty ? "" : "; frames not decoded as data: \(undecoded.joined(separator: ", "))")
                    + (streamSides > 0 ? "" : "; the engine priced no premium side by a stream quote")),
            Verdict(
                pass: evaluation.allocations == 0,
                text: "full evaluation allocations: \(evaluation.allocations) in \(evaluation.count) evaluations (budget 0)"),
        ]
        return (Report.table(table), verdicts)
    }

    /// A frame's bytes as the exchange's server sends them (HTX: gzip-compressed, inflated on the path measured).
    static func wire(_ exchange: ExchangeID, _ text: String) -> ByteBuffer {
        switch ExchangeRegistry.standard[exchange]?.wire.stream?.encode(text) {
        case .binary(let data)?: ByteBuffer(bytes: data)
        default: ByteBuffer(string: text)
        }
    }

    /// Allocations of `count` full evaluations after warm-up, as `EvaluationBenchmark` times them.
    private static func fullEvaluation(markets: BenchMarkets, at start: Date, count: Int = 200) -> (count: Int, allocations: UInt64) {
        let (settings, book, converter) = EvaluationBenchmark.inputs(markets: markets, at: start)
        var evaluator = PremiumEvaluator()
        var decided = 0
        for tick in 0..<(count * 2) {
            if tick == count { allocation_counter_start() }
            decided &+= evaluator.evaluate(settings: settings, book: book, converter: converter, now: start.addingTimeInterval(Double(tick) / 1000)).count
        }
        let allocations = allocation_counter_stop()
        Sink.consume(decided)
        return (count, allocations)
    }
}
