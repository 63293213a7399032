package dev.idempotency.agent.core.telemetry;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class LatencyRecorderTest {

    @Test
    void aSampleOnABoundCountsInThatBucketAndOneAboveItInTheNext() {
        LatencyRecorder recorder = new LatencyRecorder();
        recorder.record(500_000);   // exactly 0.5 ms: le="0.0005"
        recorder.record(500_001);   // le="0.001"
        recorder.record(1_000_000); // le="0.001"
        recorder.record(0);
        recorder.record(10_000_000_000L);     // exactly 10 s: the last bound
        recorder.record(10_000_000_001L);     // +Inf only
        long[] expected = new long[LatencyRecorder.BOUNDS.length + 1];
        expected[0] = 2;
        expected[1] = 4;
        for (int i = 2; i < expected.length - 1; i++) expected[i] = 4;
        expected[expected.length - 2] = 5;
        expected[expected.length - 1] = 6;
        assertArrayEquals(expected, recorder.cumulativeBuckets());
        assertEquals(6, recorder.count());
        assertEquals((500_000 + 500_001 + 1_000_000 + 10_000_000_000L + 10_000_000_001L) / 1e9, recorder.sumSeconds(), 1e-12);
    }

    @Test
    void everyBoundHoldsItselfAndNothingAboveIt() {
        for (int i = 0; i < LatencyRecorder.BOUNDS.length; i++) {
            long bound = java.math.BigDecimal.valueOf(LatencyRecorder.BOUNDS[i]).movePointRight(9).longValueExact();
            LatencyRecorder recorder = new LatencyRecorder();
            recorder.record(bound);
            recorder.record(bound + 1);
            long[] cumulative = recorder.cumulativeBuckets();
            if (i > 0) assertEquals(0, cumulative[i - 1], "below " + LatencyRecorder.BOUNDS[i]);
            assertEquals(1, cumulative[i], "at " + LatencyRecorder.BOUNDS[i] + " s");
            assertEquals(2, cumulative[i + 1], "the next bucket takes " + (bound + 1) + " ns");
        }
        LatencyRecorder negative = new LatencyRecorder();
        negative.record(-1); // a clock that went back: the first bucket, never an error
        assertEquals(1, negative.cumulativeBuckets()[0]);
    }

    @Test
    void theRecentQuantilesComeFromTheLast1024SamplesOnly() {
        LatencyRecorder recorder = new LatencyRecorder();
        assertEquals(0.0, recorder.recentQuantileMillis(0.5));
        for (int i = 0; i < 1024; i++) recorder.record(1_000_000_000L); // a slow past, pushed out below
        for (int i = 1; i <= 1024; i++) recorder.record(i * 1_000_000L);
        assertEquals(512.0, recorder.recentQuantileMillis(0.5));
        assertEquals(1014.0, recorder.recentQuantileMillis(0.99));
        assertEquals(1024.0, recorder.recentQuantileMillis(1.0));
        assertEquals(2048, recorder.count());
    }
}
