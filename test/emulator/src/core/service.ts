/** The contract between the HTTP server and each emulated service. */
import type { AwsError } from './errors';
import type { EmulatorRequest, EmulatorResponse } from './http';

/** Who calls, where: the SigV4 scope resolved to an account. */
export interface CallContext {
  account: string;
  region: string;
  accessKeyId: string;
  /** ARN of the caller (root or assumed role). */
  callerArn: string;
  callerUserId: string;
  requestId: string;
  /** `http://<Host>` the client used. */
  baseUrl: string;
  presigned: boolean;
}

/** One routed call: the operation's name and how to run it. */
export interface RoutedCall {
  operation: string;
  /** The call's input members a fault may match on (`Bucket`, `Key`, a JSON request's members). */
  input?: Record<string, unknown>;
  run(ctx: CallContext): EmulatorResponse | Promise<EmulatorResponse>;
}

export interface ServiceHandler {
  /** Short name used in request counts, latency and faults: `s3`, `sts`, `cloudcontrol`, ... */
  readonly name: string;
  /** Finds the operation of a request (throws an {@link AwsError} for an unknown one). */
  route(req: EmulatorRequest): RoutedCall;
  /** Serializes an error in the service's protocol. */
  errorResponse(err: AwsError, req: EmulatorRequest, requestId: string): EmulatorResponse;
  /** The error AWS answers an unsigned request with. */
  unsignedError(req: EmulatorRequest): AwsError;
  /** The error code and status a fault named by an HTTP status becomes in this service. */
  faultFor(status: number): { code: string; status: number };
}
