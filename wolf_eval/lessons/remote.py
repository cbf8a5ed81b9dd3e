"""Lessons snapshots on S3 (``s3://`` through fsspec's s3fs): each written once, by a conditional write.

A snapshot is never changed (``book``), so the one write S3 must make safe is its creation: a
``PutObject`` with ``If-None-Match: *`` succeeds only if no object of that name exists yet (HTTP 412
otherwise, or 409 when a concurrent conditional write wins). Of two writers of one snapshot, one
wins and the other is told; a killed writer leaves no lock behind, and S3 writes an object whole,
so a reader never sees half a snapshot.

Only ``s3://`` is supported: conditional writes are S3's; other fsspec stores are refused by the
settings (``wolf_eval.settings``). The endpoint and credentials are s3fs's (for example
``AWS_ENDPOINT_URL``), the same that Inspect uses to write logs to S3.
"""

from __future__ import annotations

from typing import Any

from wolf_eval.refusal import one_line


def is_remote(location: object) -> bool:
    return str(location).startswith("s3://")


def _filesystem() -> Any:  # an fsspec filesystem (fsspec has no type hints)
    import fsspec

    return fsspec.filesystem("s3")


def _bucket_key(url: str) -> tuple[str, str]:
    bucket, _, key = url.removeprefix("s3://").partition("/")
    return bucket, key


def create(url: str, content: bytes) -> bool:
    """Write ``content`` only where no object is yet (``If-None-Match: *``); False if one is."""
    bucket, key = _bucket_key(url)
    fs = _filesystem()
    try:
        fs.call_s3("put_object", Bucket=bucket, Key=key, Body=content, IfNoneMatch="*")
    except OSError as err:
        if _refused(err):
            return False
        raise
    finally:
        fs.invalidate_cache(url)  # s3fs would go on answering from a listing made before the object existed
    return True


#: S3's refusals of a conditional write: an object exists (412), or a concurrent conditional write won (409).
_REFUSALS = {"PreconditionFailed", "ConditionalRequestConflict"}


def _refused(err: BaseException) -> bool:
    """True when s3fs's error (it renames them: 412 becomes FileExistsError or EINVAL) is S3 refusing the condition."""
    seen: BaseException | None = err
    while seen is not None:
        code = getattr(seen, "response", {}).get("Error", {}).get("Code")
        if code in _REFUSALS:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def check_writable(url: str) -> None:
    """Write and remove a probe object under ``url``, so an unusable bucket fails before the first game.

    Raises:
        OSError: whatever stops the probe, with :func:`unusable` as its message.
    """
    try:
        fs = _filesystem()
        probe = f"{url.rstrip('/')}/.wolf-eval-probe"
        fs.pipe_file(probe, b"")
        fs.rm_file(probe)
    except Exception as err:  # botocore's own errors are not OSErrors: every failure is told in one line
        raise OSError(unusable(url, err)) from err


#: Where the endpoint and credentials come from, as a refusal names them.
_CREDENTIALS = "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE"


def unusable(url: str, err: BaseException) -> str:
    """Why ``url`` cannot be used, in one line naming what to fix: the credentials, the endpoint or the bucket."""
    if isinstance(err, ImportError):
        return f"s3:// needs the s3fs package (pip install s3fs): {err}"
    from urllib.parse import urlsplit

    from botocore import exceptions as boto  # installed with s3fs

    bucket, _ = _bucket_key(url)
    if isinstance(err, boto.NoCredentialsError):
        return f"no S3 credentials found: set {_CREDENTIALS}"
    if isinstance(err, boto.PartialCredentialsError):
        return f"incomplete S3 credentials ({err}): set {_CREDENTIALS}"
    if isinstance(err, boto.ConnectionError):  # EndpointConnectionError, ConnectTimeoutError, ProxyConnectionError
        endpoint = urlsplit(str(err.kwargs.get("endpoint_url", "")))
        where = f"{endpoint.scheme}://{endpoint.netloc}" if endpoint.netloc else "the S3 endpoint"
        return f"cannot connect to {where}: check AWS_ENDPOINT_URL and that the server is up"
    if isinstance(err, boto.ParamValidationError):
        return f"{bucket!r} is not a valid bucket name"
    if isinstance(err, FileNotFoundError):  # s3fs's NoSuchBucket
        return f"no bucket named {bucket!r} at this endpoint: create it, or check the name and AWS_ENDPOINT_URL"
    if isinstance(err, PermissionError):  # s3fs's AccessDenied, InvalidAccessKeyId, SignatureDoesNotMatch
        return f"access refused ({one_line(err)}): check {_CREDENTIALS}, and that they may write to {bucket!r}"
    return f"{type(err).__name__}: {one_line(err)}"
