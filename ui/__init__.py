"""Streamlit helpers shared by the pages: the store connection, the sidebar filters, tables and charts."""
