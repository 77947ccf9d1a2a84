# envcheck in a small image: `docker run --gpus all IMAGE doctor` diagnoses the host through the
# container. Build stage makes the wheel; the final stage has no build tools and runs as non-root.
# BASE_IMAGE: any image with a Python >= 3.9 whose `python` can pip install (scripts/image-check.sh
# builds on one made from Debian's packages). A pip configuration (a private index) comes in as
# the build secret `pipconf`, and its CA bundle, if it needs one, as `pipcert` (the
# configuration then says cert = /run/secrets/pipcert); neither stays in the image:
#   docker build --secret id=pipconf,src=pip.conf -t envcheck .
ARG BASE_IMAGE=python:3.12-slim

FROM ${BASE_IMAGE} AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY envcheck ./envcheck
COPY matrix ./matrix
RUN --mount=type=secret,id=pipconf --mount=type=secret,id=pipcert \
    PIP_CONFIG_FILE=/run/secrets/pipconf \
    python -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM ${BASE_IMAGE}
RUN useradd --create-home --uid 10001 envcheck
COPY --from=build /wheels /wheels
RUN --mount=type=secret,id=pipconf --mount=type=secret,id=pipcert \
    PIP_CONFIG_FILE=/run/secrets/pipconf \
    python -m pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
USER 10001
ENTRYPOINT ["envcheck"]
CMD ["doctor"]
