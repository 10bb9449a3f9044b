"""aish-testllm: a scripted model server for tests, benchmarks and demos."""
