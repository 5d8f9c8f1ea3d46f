"""Training beyond one device: several places in one process, collective (nccl2) and
parameter-server modes across processes, on torch.distributed."""
