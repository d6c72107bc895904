// Placeholder: the graceful shutdown example is being written.
print("GracefulShutdown")
