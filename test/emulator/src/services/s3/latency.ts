/** S3 figures for the `realistic` latency profile (see the README for their sources). */
import type { LatencyFigures } from '../../core/service';

export const s3Latency: LatencyFigures = { operations: {}, sources: [] };
