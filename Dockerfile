# envcheck in a small image: `docker run --gpus all IMAGE doctor` diagnoses the host through the
# container. Build stage makes the wheel; the final stage has no build tools and runs as non-root.
FROM python:3.12-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY envcheck ./envcheck
COPY matrix ./matrix
RUN python -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.12-slim
RUN useradd --create-home --uid 10001 envcheck
COPY --from=build /wheels /wheels
RUN python -m pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
USER 10001
ENTRYPOINT ["envcheck"]
CMD ["doctor"]
