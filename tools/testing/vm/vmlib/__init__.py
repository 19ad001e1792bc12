"""vmlib: the pieces of the QEMU test harness that vmtest and demo share."""
