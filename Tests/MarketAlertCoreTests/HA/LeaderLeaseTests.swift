import Foundation
import MarketAlertCore
import Testing

/// The lease state machine on virtual time: no database, no sleeps.
@Suite struct LeaderLeaseTests {
    let t0 = Date(timeIntervalSince1970: 1_773_108_000)
    func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

    @Test func acquiresRenewsEveryThirdOfTheLeaseAndStaysLeader() {
        var lease = LeaderLease(lease: 9, now: t0)
        #expect(lease.tick(now: t0) == [.tryAcquire])
        #expect(lease.tick(now: at(0.01)) == [])  // one query at a time
        #expect(lease.acquired(epoch: 4, now: at(0.02)) == [.becomeLeader(epoch: 4)])
        #expect(lease.role == .leader(epoch: 4))
        #expect(lease.validUntil == at(9 - 1.8))  // sent at 0, lease 9, margin 9/5
        #expect(lease.nextDeadline == at(3))
        #expect(lease.tick(now: at(2.9)) == [])
        #expect(lease.tick(now: at(3)) == [.renew(epoch: 4)])
        lease.renewed(now: at(3.05))
        #expect(lease.validUntil == at(3 + 7.2))
        #expect(lease.nextDeadline == at(6))
        for step in 2...30 {
            #expect(lease.tick(now: at(Double(step) * 3)) == [.renew(epoch: 4)])
            lease.renewed(now: at(Double(step) * 3 + 0.01))
        }
        #expect(lease.isLeader)
    }

    /// Renewals failing (database unreachable): retries with backoff, then steps down by its own clock before
    /// the database can let anyone else in (the last grant was sent at 3: it expires at 3 + 9 = 12 at the earliest).
    @Test func failedRenewalsStepDownBeforeTheDatabaseExpiry() {
        var lease = LeaderLease(lease: 9, now: t0)
        _ = lease.tick(now: t0)
        _ = lease.acquired(epoch: 1, now: t0)
        _ = lease.tick(now: at(3))
        lease.renewed(now: at(3))
        var now = at(6)
        var steppedDownAt: Date?
        var renewals = 0
        while now < at(20), steppedDownAt == nil {
            for action in lease.tick(now: now) {
                switch action {
                case .renew: renewals += 1; _ = lease.failed(now: now)
                case .stepDown: steppedDownAt = now
                default: break
                }
            }
            now = min(lease.nextDeadline, now.addingTimeInterval(0.05))
        }
        let stepped = try! #require(steppedDownAt)
        #expect(stepped >= at(3 + 9 - 1.8) && stepped < at(12))
        #expect(renewals >= 3)  // 0.9, 1.8, 3.0 (capped) apart
        #expect(lease.role == .standby && lease.validUntil == nil)
    }

    /// A renewal that hangs counts as failed after the query timeout; the step-down still comes on time.
    @Test func aHangingRenewalTimesOut() {
        var lease = LeaderLease(lease: 3, now: t0)
        _ = lease.tick(now: t0)
        _ = lease.acquired(epoch: 1, now: t0)
        #expect(lease.tick(now: at(1)) == [.renew(epoch: 1)])
        #expect(lease.nextDeadline == at(2))  // query timeout 1 s
        #expect(lease.tick(now: at(2)) == [])  // timed out; retry after 0.3 s
        #expect(lease.tick(now: at(2.3)) == [.renew(epoch: 1)])
        let actions = lease.tick(now: at(2.4))  // validUntil = 0 + 3 - 0.6
        #expect(actions.count == 1)
        if case .stepDown = actions.first {} else { Issue.record("expected a step-down, got \(actions)") }
        // The late answer to the renewal does not make it leader again.
        lease.renewed(now: at(2.5))
        #expect(!lease.isLeader)
    }

    @Test func aStandbyRetriesJustAfterTheHoldersExpiry() {
        var lease = LeaderLease(lease: 10, now: t0)
        #expect(lease.tick(now: t0) == [.tryAcquire])
        lease.notAcquired(remaining: 1.2, now: at(0.01))
        #expect(lease.nextDeadline == at(0.01 + 1.25))
        #expect(lease.tick(now: at(1.26)) == [.tryAcquire])
        lease.notAcquired(remaining: 60, now: at(1.3))  // far away: still look every third of a lease
        #expect(abs(lease.nextDeadline.timeIntervalSince(at(1.3 + 10.0 / 3))) < 1e-9)
        _ = lease.tick(now: lease.nextDeadline)
        #expect(lease.acquired(epoch: 9, now: lease.nextDeadline) == [.becomeLeader(epoch: 9)])
    }

    @Test func aGrantAnsweredTooLateIsNotUsed() {
        var lease = LeaderLease(lease: 2, now: t0)
        _ = lease.tick(now: t0)
        #expect(lease.acquired(epoch: 3, now: at(1.7)) == [])  // 0 + 2 - 0.4 = 1.6 already passed
        #expect(!lease.isLeader)
        #expect(lease.tick(now: at(1.7)) == [.tryAcquire])
    }

    @Test func refusedRenewalAndFencedWriteStepDown() {
        var lease = LeaderLease(lease: 6, now: t0)
        _ = lease.tick(now: t0)
        _ = lease.acquired(epoch: 2, now: t0)
        _ = lease.tick(now: at(2))
        #expect(lease.renewRefused(now: at(2.1)) == [.stepDown(reason: "the lease was taken over by another instance")])
        #expect(lease.tick(now: at(2.1)) == [])
        #expect(lease.tick(now: at(2.7)) == [.tryAcquire])
        _ = lease.acquired(epoch: 5, now: at(2.7))
        #expect(lease.epoch == 5)
        #expect(lease.fenced(now: at(3)).count == 1)
        #expect(lease.fenced(now: at(3)) == [])  // already a standby
        #expect(lease.resign(now: at(3)) == [])
    }
}
