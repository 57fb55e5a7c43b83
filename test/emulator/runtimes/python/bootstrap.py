# The emulator's Python runtime: one execution environment. It talks to the
# emulator over fd 3 (one JSON message per line): "init" imports the handler
# module (its top-level code runs then, as in Lambda's init phase), each
# "invoke" runs the handler with a Lambda-like context, and everything written
# to stdout, stderr or the logging module goes back as "log" messages, so logs
# stay in order with results. One invocation at a time.
import importlib
import importlib.util
import json
import logging
import os
import queue
import socket
import sys
import threading
import time
import traceback

channel = socket.socket(fileno=3)
reader = channel.makefile("rb")
writer_lock = threading.Lock()
messages = queue.Queue()
current = {"request_id": None}


def send(message):
    data = (json.dumps(message) + "\n").encode("utf-8")
    with writer_lock:
        channel.sendall(data)


def read_messages():
    for line in reader:
        if line.strip():
            messages.put(json.loads(line))
    # The emulator went away: nothing will ever read our answers.
    os._exit(0)


class ChannelStream:
    """stdout/stderr as log messages (the emulator splits them into lines)."""

    encoding = "utf-8"

    def write(self, text):
        if text:
            send({"type": "log", "requestId": current["request_id"], "message": text})
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False


class RequestIdFilter(logging.Filter):
    def filter(self, record):
        record.aws_request_id = current["request_id"]
        return True


def configure_logging():
    json_logs = os.environ.get("AWS_LAMBDA_LOG_FORMAT") == "JSON"
    handler = logging.StreamHandler(sys.stdout)
    handler.addFilter(RequestIdFilter())
    if json_logs:

        class JsonFormatter(logging.Formatter):
            def format(self, record):
                return json.dumps(
                    {
                        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
                        + ".%03dZ" % record.msecs,
                        "level": record.levelname,
                        "message": record.getMessage(),
                        "logger": record.name,
                        "requestId": record.aws_request_id,
                    }
                )

        handler.setFormatter(JsonFormatter())
    else:
        formatter = logging.Formatter(
            "[%(levelname)s]\t%(asctime)s.%(msecs)03dZ\t%(aws_request_id)s\t%(message)s\n",
            "%Y-%m-%dT%H:%M:%S",
        )
        formatter.converter = time.gmtime
        handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(os.environ.get("AWS_LAMBDA_LOG_LEVEL", "WARNING") if json_logs else logging.WARNING)


def route_boto3_to_the_emulator():
    """botocore before 1.31 ignores AWS_ENDPOINT_URL: give its clients the endpoint explicitly."""
    endpoint = os.environ.get("AWS_ENDPOINT_URL")
    if not endpoint or importlib.util.find_spec("botocore") is None:
        return
    import botocore
    import botocore.session

    version = tuple(int(p) for p in botocore.__version__.split(".")[:2] if p.isdigit())
    if version >= (1, 31):
        return
    original = botocore.session.Session.create_client

    def create_client(self, *args, **kwargs):
        if kwargs.get("endpoint_url") is None and len(args) < 5:
            kwargs["endpoint_url"] = endpoint
        return original(self, *args, **kwargs)

    botocore.session.Session.create_client = create_client


def map_opt_to_layers(opt_root):
    """Lambda unpacks a function's layers into /opt; here they are in opt_root. Programs the
    handler starts by an /opt path (CDK's BucketDeployment runs /opt/awscli/aws) are run from
    opt_root, and a script whose interpreter is Lambda's own Python (/var/lang/bin/python,
    absent here) runs on this interpreter."""
    import subprocess

    original = subprocess.Popen

    def mapped(arg):
        if isinstance(arg, str) and (arg == "/opt" or arg.startswith("/opt/")):
            return opt_root + arg[len("/opt"):]
        return arg

    def interpreter_of(program):
        try:
            with open(program, "rb") as f:
                first = f.readline(256).decode("utf-8", "replace").strip()
        except OSError:
            return []
        if not first.startswith("#!"):
            return []
        command = first[2:].split()
        if command and not os.path.exists(command[0]) and os.path.basename(command[0]).startswith("python"):
            return [sys.executable] + command[1:]
        return []

    class Popen(original):
        def __init__(self, args, *rest, **kwargs):
            if isinstance(args, (list, tuple)) and args and not kwargs.get("shell"):
                args = [mapped(a) for a in args]
                if isinstance(args[0], str) and args[0].startswith(opt_root + os.sep):
                    args = interpreter_of(args[0]) + args
            elif isinstance(args, str) and not kwargs.get("shell"):
                args = mapped(args)
                if args.startswith(opt_root + os.sep):
                    args = interpreter_of(args) + [args]
            if kwargs.get("executable"):
                kwargs["executable"] = mapped(kwargs["executable"])
            super().__init__(args, *rest, **kwargs)

    subprocess.Popen = Popen


def error_payload(err, error_type=None, tb=None):
    return {
        "errorMessage": str(err),
        "errorType": error_type or type(err).__name__,
        "requestId": current["request_id"] or "",
        "stackTrace": traceback.format_list(traceback.extract_tb(tb)) if tb else [],
    }


def load_handler(spec, task_root):
    module_path, _, function_name = spec.rpartition(".")
    if not module_path:
        raise LambdaError("Runtime.MalformedHandlerName", "Bad handler '%s': not enough values to unpack" % spec)
    module_name = module_path.replace("/", ".")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise LambdaError("Runtime.ImportModuleError", "Unable to import module '%s': %s" % (module_name, err))
    except SyntaxError as err:
        raise LambdaError("Runtime.UserCodeSyntaxError", "Syntax error in module '%s': %s" % (module_name, err))
    function = getattr(module, function_name, None)
    if function is None:
        raise LambdaError(
            "Runtime.HandlerNotFound", "Handler '%s' missing on module '%s'" % (function_name, module_name)
        )
    return function


class LambdaError(Exception):
    def __init__(self, error_type, message):
        super().__init__(message)
        self.error_type = error_type


class Context:
    def __init__(self, message):
        self.function_name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME")
        self.function_version = os.environ.get("AWS_LAMBDA_FUNCTION_VERSION")
        self.invoked_function_arn = message.get("invokedFunctionArn")
        self.memory_limit_in_mb = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
        self.aws_request_id = message["requestId"]
        self.log_group_name = os.environ.get("AWS_LAMBDA_LOG_GROUP_NAME")
        self.log_stream_name = os.environ.get("AWS_LAMBDA_LOG_STREAM_NAME")
        self.identity = None
        self.client_context = message.get("clientContext")
        self._deadline = message["deadline"]

    def get_remaining_time_in_millis(self):
        return max(0, int(self._deadline - time.time() * 1000))


def main():
    sys.stdout = ChannelStream()
    sys.stderr = ChannelStream()
    configure_logging()
    threading.Thread(target=read_messages, daemon=True).start()
    handler = None
    while True:
        message = messages.get()
        if message["type"] == "init":
            sys.path.insert(0, message["taskRoot"])
            if message.get("optRoot"):
                map_opt_to_layers(message["optRoot"])
            try:
                route_boto3_to_the_emulator()
                handler = load_handler(message["handler"], message["taskRoot"])
                send({"type": "init-done"})
            except LambdaError as err:
                send({"type": "init-error", "error": error_payload(err, err.error_type)})
            except Exception as err:  # top-level code of the module failed
                send({"type": "init-error", "error": error_payload(err, None, err.__traceback__)})
        elif message["type"] == "invoke":
            current["request_id"] = message["requestId"]
            try:
                event = json.loads(message["event"])
                result = handler(event, Context(message))
            except Exception as err:
                traceback_of = err.__traceback__.tb_next if err.__traceback__ else None
                send({"type": "error", "requestId": message["requestId"], "error": error_payload(err, None, traceback_of)})
                continue
            try:
                payload = json.dumps(result)
            except (TypeError, ValueError) as err:
                marshal = LambdaError("Runtime.MarshalError", "Unable to marshal response: %s" % err)
                send({"type": "error", "requestId": message["requestId"], "error": error_payload(marshal, marshal.error_type)})
                continue
            send({"type": "result", "requestId": message["requestId"], "payload": payload})


main()
