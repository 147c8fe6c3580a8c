import MarketAlertCore
import Testing

/// Binance's diff-depth rule: buffer until a snapshot, drop what it holds, the first diff straddles it, then
/// no gap.
@Suite struct BookSequenceTests {
    @Test func diffsBeforeTheSnapshotAreBuffered() {
        var sequence = BookSequence()
        #expect(sequence.check(first: 1, final: 5) == .buffer)
    }

    @Test func theSnapshotDecidesWhatIsSkippedAndTheFirstDiffMustStraddleIt() {
        var sequence = BookSequence()
        sequence.snapshot(100)
        #expect(sequence.check(first: 90, final: 100) == .skip)   // u <= lastUpdateId
        #expect(sequence.check(first: 95, final: 105) == .apply)  // U <= 101 <= u
        #expect(sequence.check(first: 106, final: 110) == .apply)
        #expect(sequence.last == 110)
    }

    @Test func aFirstDiffThatStartsAfterTheSnapshotIsAGap() {
        var sequence = BookSequence()
        sequence.snapshot(100)
        #expect(sequence.check(first: 102, final: 110) == .gap)
    }

    @Test func aMissingDiffIsAGapAndAResetWaitsForTheNextSnapshot() {
        var sequence = BookSequence()
        sequence.snapshot(100)
        #expect(sequence.check(first: 101, final: 105) == .apply)
        #expect(sequence.check(first: 107, final: 110) == .gap)
        sequence.reset()
        #expect(sequence.check(first: 111, final: 112) == .buffer)
        sequence.snapshot(111)
        #expect(sequence.check(first: 111, final: 112) == .apply)
    }

    @Test func aRepeatedDiffIsSkipped() {
        var sequence = BookSequence()
        sequence.snapshot(100)
        #expect(sequence.check(first: 101, final: 105) == .apply)
        #expect(sequence.check(first: 101, final: 105) == .skip)
        #expect(sequence.check(first: 106, final: 106) == .apply)
    }
}
