// API entry points (being written)
