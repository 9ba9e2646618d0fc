# One image for every Shoal process: `shoal run watcher|jobcontroller|scheduler|binder|kubesim`,
# `shoal submit`, `shoal replay`, ... (the entrypoint is the `shoal` command).

# Build: resolve exactly uv.lock into a virtual environment, the project installed non-editable so
# the runtime stage needs only the environment, not the source tree.
FROM python:3.11-slim AS build
RUN pip install --no-cache-dir uv==0.13.9
ENV UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/app/.venv
WORKDIR /src
# Dependencies first, in their own layer: it is rebuilt only when the lock changes.
COPY pyproject.toml uv.lock README.md ./
RUN --mount=type=cache,target=/root/.cache/uv \
    uv sync --frozen --no-dev --no-install-project --python /usr/local/bin/python3.11
COPY shared ./shared
COPY services ./services
# kubesim's CRDs: the wheel carries deploy/crds as package data.
COPY deploy/crds ./deploy/crds
RUN --mount=type=cache,target=/root/.cache/uv \
    uv sync --frozen --no-dev --no-editable --python /usr/local/bin/python3.11

# Runtime: the same Python, the environment, the example manifests (for the compose demo), and an
# unprivileged user. Bytecode is compiled at build time, so a read-only root filesystem works.
FROM python:3.11-slim
RUN groupadd --system --gid 10001 shoal \
    && useradd --system --uid 10001 --gid shoal --no-create-home --shell /usr/sbin/nologin shoal \
    && mkdir /shared && chown shoal:shoal /shared
COPY --from=build /app/.venv /app/.venv
COPY deploy/examples /app/deploy/examples
ENV PATH=/app/.venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /app
USER 10001:10001
EXPOSE 8080
ENTRYPOINT ["shoal"]
CMD ["--help"]
