# cutroom in a container: `docker build -t cutroom .` then
#   docker run -d -p 8787:8787 -v cutroom-data:/data -e CUTROOM_PUBLIC_URL=http://localhost:8787 cutroom
# The build stage builds the Debian package (`make deb`: scripts/deb.sh) and the runtime
# stage installs it, so the image gets the binary and exactly the runtime libraries the
# package depends on (librlottie0-1 for Lottie among them, from dpkg-shlibdeps). Not built by CI (see docs/operations.md, "Installing").

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-trixie AS build
RUN apt-get update \
	&& apt-get install -y --no-install-recommends pkg-config libx264-dev libvpx-dev libopus-dev \
		libvo-aacenc-dev librlottie-dev libjpeg62-turbo-dev dpkg-dev npm \
	&& rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG DEB_VERSION=
RUN DEB_VERSION="${DEB_VERSION}" ./scripts/deb.sh && mv build/cutroom_*.deb /cutroom.deb

FROM debian:trixie-slim
# A fixed uid/gid, so that volumes and runAsNonRoot policies can name it; the package's
# postinst keeps an existing cutroom user.
RUN groupadd --system --gid 10001 cutroom \
	&& useradd --system --uid 10001 --gid cutroom --home-dir /var/lib/cutroom --no-create-home \
		--shell /usr/sbin/nologin cutroom
COPY --from=build /cutroom.deb /tmp/cutroom.deb
RUN apt-get update \
	&& apt-get install -y --no-install-recommends /tmp/cutroom.deb ffmpeg fonts-noto-core \
	&& rm -rf /var/lib/apt/lists/* /tmp/cutroom.deb \
	&& install -d -o cutroom -g cutroom -m 0750 /data
ENV CUTROOM_DATA_DIR=/data \
	CUTROOM_ADDR=0.0.0.0:8787 \
	XDG_CACHE_HOME=/tmp
VOLUME /data
EXPOSE 8787
USER 10001:10001
# `cutroom healthcheck` GETs /readyz on the address CUTROOM_ADDR names (0.0.0.0: loopback)
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 CMD ["cutroom", "healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["cutroom"]
CMD ["serve"]
