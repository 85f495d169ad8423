/*
 * The sockets API's headers, part of the OS layer (os.h): Winsock on
 * Windows, BSD sockets elsewhere, with POSIX's names for shutdown's
 * directions. Socket errors are EVUTIL_SOCKET_ERROR(), never errno.
 */
#ifndef OS_SOCKET_H
#define OS_SOCKET_H

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
#define SHUT_WR		SD_SEND
#define SHUT_RDWR	SD_BOTH
#else
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#endif

#endif
