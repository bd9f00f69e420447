"""A small FastMCP server for mcpvet's interop run, served over modern Streamable HTTP.

Usage: python fastmcp_server.py PORT   (listens on 127.0.0.1:PORT, path /mcp)
"""
import sys

from fastmcp import FastMCP

mcp = FastMCP("interop-fastmcp", instructions="Arithmetic and greetings for the interop run.")


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool
def greet(name: str) -> str:
    """Greet someone by name."""
    return f"Hello, {name}!"


@mcp.tool
def word_count(text: str) -> int:
    """Count the words in a text."""
    return len(text.split())


@mcp.prompt
def summarize(topic: str) -> str:
    """Ask for a short summary of a topic."""
    return f"Summarize {topic} in three sentences."


if __name__ == "__main__":
    mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]), show_banner=False)
