# The CPU image of virtual-anchor: the daemon and every command (`docker run IMAGE demo` records the demo
# room; `docker run IMAGE run --config /etc/virtual-anchor/config.yaml` puts configured rooms on air).
# Build: docker build -t virtual-anchor:0.1.0 .   (the GPU face service: Dockerfile.cuda)
# Nothing but pip is needed: PyAV, OpenCV and espeak-ng come as wheels with their libraries, the Chinese
# subtitle font is a Python dependency, and the face-landmark models are package data.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# -- build: the project's wheel (sources and build tools stay in this stage) -------------------------------
FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
# The context is what .dockerignore lets through: pyproject.toml, README.md and the packages.
COPY . .
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# -- runtime ---------------------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE}
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HOME=/var/lib/virtual-anchor
# A fixed numeric user, so that Kubernetes' runAsNonRoot can verify it and volumes can be given to it.
RUN groupadd --system --gid 10001 virtual-anchor \
 && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/virtual-anchor --no-create-home \
            --shell /usr/sbin/nologin virtual-anchor \
 && install -d -o 10001 -g 10001 -m 0750 /var/lib/virtual-anchor /etc/virtual-anchor
# The runtime dependencies only (no test, ML or face extras).
# (COPY rather than a BuildKit bind mount: the same file builds with the legacy builder, podman and kaniko;
# the 2 MB wheel left in a layer is the price.)
COPY --from=build /wheels /tmp/wheels
RUN pip install --no-cache-dir /tmp/wheels/virtual_anchor-*.whl && rm -rf /tmp/wheels
USER 10001:10001
WORKDIR /var/lib/virtual-anchor
# The admin API: /healthz, /readyz, /metrics and the operator console (bind daemon.admin.host: 0.0.0.0 to
# reach it from outside the container).
EXPOSE 8717
# Alive = the admin API answers (no token needed for /healthz). Rooms may take minutes to load models.
# VA_ADMIN_PORT: set it when the config's daemon.admin.port is not 8717.
HEALTHCHECK --interval=30s --timeout=5s --start-period=300s --retries=3 \
  CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('VA_ADMIN_PORT', '8717') + '/healthz', timeout=4)"]
# SIGTERM ends the sentence being spoken and closes the streams cleanly (docker stop's default 10 s is enough
# with daemon.shutdown_grace_s ≤ 5).
STOPSIGNAL SIGTERM
ENTRYPOINT ["virtual-anchor"]
CMD ["run", "--config", "/etc/virtual-anchor/config.yaml"]
