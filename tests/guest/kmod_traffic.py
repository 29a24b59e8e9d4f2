#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Small vneuron.ko traffic for tests/guest/modload.sh: every ioctl, an mmap, and checks.

   kmod_traffic.py [DEV]        one round on DEV (default /dev/vneuron0)
   kmod_traffic.py --hold DEV   open DEV, map a buffer, print "held", and keep the
                                map until stdin closes
   kmod_traffic.py --enomem DEV BYTES   MEM_ALLOC of BYTES must fail with ENOMEM
Exit status 0 when every check passed.
"""
import errno
import fcntl
import mmap
import os
import struct
import sys

IOC_WRITE, IOC_READ = 1, 2


def ioc(d, nr, size):
    return (d << 30) | (size << 16) | (ord('V') << 8) | nr


GET_INFO = ioc(IOC_READ | IOC_WRITE, 0, 176)
MEM_ALLOC = ioc(IOC_READ | IOC_WRITE, 1, 32)
MEM_FREE = ioc(IOC_WRITE, 2, 8)
MEM_WRITE = ioc(IOC_WRITE, 3, 32)
MEM_READ = ioc(IOC_WRITE, 4, 32)
RESET = ioc(IOC_WRITE, 5, 8)


def alloc(fd, size):
    buf = bytearray(struct.pack('=QIIQQ', size, 0, 0, 0, 0))
    fcntl.ioctl(fd, MEM_ALLOC, buf)
    _, _, handle, off, addr = struct.unpack('=QIIQQ', buf)
    return handle, off


def rw(fd, cmd, handle, offset, data):
    addr = ctypes_addr(data)
    fcntl.ioctl(fd, cmd, struct.pack('=IIQQQ', handle, 0, offset, len(data), addr))


def ctypes_addr(data):
    import ctypes
    return ctypes.addressof((ctypes.c_char * len(data)).from_buffer(data))


def one_round(dev):
    fd = os.open(dev, os.O_RDWR)
    info = bytearray(176)
    fcntl.ioctl(fd, GET_INFO, info)
    ver, = struct.unpack_from('=I', info, 0)
    assert ver == 1, ver
    h, off = alloc(fd, 3 * 4096)
    src = bytearray(os.urandom(3 * 4096))
    rw(fd, MEM_WRITE, h, 0, src)
    dst = bytearray(len(src))
    rw(fd, MEM_READ, h, 0, dst)
    assert dst == src
    m = mmap.mmap(fd, 3 * 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, offset=off)
    assert m[:] == bytes(src)
    m[0:4] = b'abcd'
    rw(fd, MEM_READ, h, 0, dst)
    assert dst[0:4] == b'abcd'
    m.close()
    fcntl.ioctl(fd, MEM_FREE, struct.pack('=II', h, 0))
    fcntl.ioctl(fd, RESET, struct.pack('=II', 0, 0))
    os.close(fd)


def enomem(dev, size):
    fd = os.open(dev, os.O_RDWR)
    try:
        alloc(fd, size)
    except OSError as e:
        if e.errno == errno.ENOMEM:
            return
        raise
    raise AssertionError('allocation of %d bytes succeeded' % size)


def hold(dev):
    fd = os.open(dev, os.O_RDWR)
    _, off = alloc(fd, 4096)
    m = mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, offset=off)
    m[0:4] = b'held'
    print('held', flush=True)
    sys.stdin.read()
    assert m[0:4] == b'held'
    m.close()


if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == '--hold':
        hold(sys.argv[2])
    elif len(sys.argv) > 1 and sys.argv[1] == '--enomem':
        enomem(sys.argv[2], int(sys.argv[3]))
    else:
        one_round(sys.argv[1] if len(sys.argv) > 1 else '/dev/vneuron0')
